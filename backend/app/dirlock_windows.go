//go:build windows

package app

import (
	"errors"
	"os"
	"syscall"
)

// openLockFile opens path without sharing it: a second process's open
// fails with a sharing violation until the first closes it (or ends).
func openLockFile(path string) (*os.File, error) {
	p, err := syscall.UTF16PtrFromString(path)
	if err != nil {
		return nil, err
	}
	h, err := syscall.CreateFile(p, syscall.GENERIC_READ|syscall.GENERIC_WRITE, 0, nil, syscall.OPEN_ALWAYS, syscall.FILE_ATTRIBUTE_NORMAL, 0)
	if err != nil {
		if errors.Is(err, syscall.Errno(32)) { // ERROR_SHARING_VIOLATION
			return nil, errLocked
		}
		return nil, err
	}
	return os.NewFile(uintptr(h), path), nil
}

// tryLock has nothing left to do: the unshared open is the lock.
func tryLock(*os.File) error { return nil }
