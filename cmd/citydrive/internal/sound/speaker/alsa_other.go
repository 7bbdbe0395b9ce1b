//go:build !linux

package speaker

func quietDriver() {}
