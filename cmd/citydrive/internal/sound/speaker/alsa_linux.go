package speaker

// ALSA prints every failed probe to stderr (a dozen lines on a machine
// without a sound card). The game reports "no sound" once in its own log
// instead, so ALSA's messages are dropped.

// #cgo pkg-config: alsa
// #include <alsa/asoundlib.h>
// static void citydrive_alsa_quiet(const char *file, int line, const char *function, int err, const char *fmt, ...) {}
// static void citydrive_alsa_silence(void) { snd_lib_error_set_handler(citydrive_alsa_quiet); }
import "C"

func quietDriver() { C.citydrive_alsa_silence() }
