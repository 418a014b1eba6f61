#!/usr/bin/env bash
# Playwright records videos with an ffmpeg of its own that it would download; there is no download here.
# Debian's ffmpeg does the same job: install it when missing (as root) and link it where Playwright looks.
set -euo pipefail
cd "$(dirname "$0")/../.."
if ! command -v ffmpeg >/dev/null 2>&1; then
  if [ "$(id -u)" != 0 ]; then echo "ffmpeg is needed to record journey videos: sudo apt-get install -y ffmpeg" >&2; exit 1; fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ffmpeg >/dev/null
fi
revision=$(node -e 'console.log(require("./node_modules/playwright-core/browsers.json").browsers.find((b) => b.name === "ffmpeg").revision)')
dir="${PLAYWRIGHT_BROWSERS_PATH:-$HOME/.cache/ms-playwright}/ffmpeg-$revision"
mkdir -p "$dir"
ln -sf "$(command -v ffmpeg)" "$dir/ffmpeg-linux"
