#!/usr/bin/env bash
# Data directories that earlier journey runs left in the temp folder (each holds its projects' bounded
# workspaces, up to a few GB): the ones whose runner process has ended are unmounted and removed. A run
# beside this one keeps its own. Left behind, they filled the disk until the deploy journey's free-disk
# check on the test server (which shares this disk) refused to deploy.
set -u
for dir in "${TMPDIR:-/tmp}"/devops-agents-e2e-*; do
  [ -d "$dir" ] || continue
  pid=${dir##*-}
  [ -e "/proc/$pid" ] && continue
  findmnt -rn -o TARGET | grep -F "$dir/" | xargs -r -n1 umount --lazy
  rm -rf "$dir"
done
exit 0
