# Sourced by play.sh and test.sh: puts Go on PATH. Go lives in
# /usr/local/go on these machines; a fresh shell may not have it on PATH.
if ! command -v go >/dev/null 2>&1 && [ -x /usr/local/go/bin/go ]; then
	PATH="/usr/local/go/bin:$PATH"
fi
if ! command -v go >/dev/null 2>&1; then
	echo "go 1.26 or newer is needed (https://go.dev/dl/); it was not found on PATH" >&2
	exit 1
fi
