package wailsbridge

import (
	"errors"
	"runtime"
)

// CheckDisplay explains why no window can open, before GTK would abort the
// process: on Linux the window needs an X11 or Wayland display. getenv is
// os.Getenv outside tests.
func CheckDisplay(getenv func(string) string) error {
	if runtime.GOOS != "linux" || getenv("DISPLAY") != "" || getenv("WAYLAND_DISPLAY") != "" {
		return nil
	}
	return errors.New("no display found ($DISPLAY and $WAYLAND_DISPLAY are empty); " +
		"run 'hearth serve' and open the printed address in a browser")
}
