package webmap

// The map's WebAssembly module and Go's JavaScript glue for it, built into
// static/ (not committed; cmd/test.sh and the release build run this
// before building citydrive). Stripped (-s -w) and with -trimpath to keep
// the module small.
//go:generate sh -c "GOOS=js GOARCH=wasm go build -trimpath -ldflags='-s -w' -o static/map.wasm ./wasm"
//go:generate sh -c "cp \"$(go env GOROOT)/lib/wasm/wasm_exec.js\" static/wasm_exec.js"
