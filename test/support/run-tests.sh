#!/usr/bin/env bash
# `npm test`: the unit tests (jest: client and server), then the journeys (Playwright in Debian's
# Chromium). The journeys run even when a unit test failed, so one run reports both; the command fails
# if either did.
set -u
cd "$(dirname "$0")/../.."
failed=()
npm run test:unit || failed+=(test:unit)
npm run test:e2e || failed+=(test:e2e)
if [ ${#failed[@]} -gt 0 ]; then
  echo "npm test: failed stages: ${failed[*]}" >&2
  exit 1
fi
echo "npm test: test:unit and test:e2e passed"
