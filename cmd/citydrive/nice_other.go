//go:build !linux

package main

import "errors"

func lowerPriority(int) error { return errors.New("not supported on this system") }
