# Sourced by play.sh: builds for x86-64-v3 (AVX2, BMI1/2, FMA, LZCNT,
# MOVBE) when this CPU has it: the voxel mesher runs 0-11% faster there
# (docs/performance.md). Otherwise, or when GOAMD64 is already set, nothing
# changes and Go builds for the v1 baseline. A v3 binary copied to an older
# CPU stops at once with Go's own message: "This program can only be run on
# AMD64 processors with v3 microarchitecture support."
if [ -z "${GOAMD64:-}" ] && [ "$(uname -m)" = x86_64 ]; then
	cpu_flags=" $(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null | cut -d: -f2) "
	goamd64=v3
	for f in avx avx2 bmi1 bmi2 fma f16c movbe abm; do # abm: Linux's name for LZCNT
		case "$cpu_flags" in *" $f "*) ;; *) goamd64=v1 ;; esac
	done
	if [ "$goamd64" = v3 ]; then
		export GOAMD64=v3
	else
		echo "play: this CPU lacks x86-64-v3 (AVX2/BMI2/FMA): building for the v1 baseline"
	fi
fi
