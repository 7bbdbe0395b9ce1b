#!/bin/sh
# Installs, only when missing, the Debian packages citydrive needs: a C
# compiler, the X11/GL headers to build GLFW, the ALSA headers for the
# engine sound (oto), Xvfb + Mesa (llvmpipe, OpenGL 4.5 core) to run
# without a display, and fuse3 (fusermount3) for the edit store's power-cut
# tests (voxel/store/lazyfs), and chromium for the web map's browser test
# (cmd/citydrive/internal/webmap, driven by chromedp), and glslang-tools
# (Khronos' reference compiler: every shader in both dialects,
# render/glsl). Idempotent; needs root or sudo.
set -eu
pkgs="gcc pkg-config libasound2-dev libgl1-mesa-dev libx11-dev libxcursor-dev libxrandr-dev libxinerama-dev libxi-dev libxxf86vm-dev xvfb xauth libgl1-mesa-dri fuse3 chromium glslang-tools"
missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
if [ -z "$missing" ]; then
	echo "deps: all system packages present"
	exit 0
fi
sudo=""
[ "$(id -u)" = 0 ] || sudo="sudo"
echo "deps: installing$missing"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing >/dev/null
echo "deps: installed$missing"
