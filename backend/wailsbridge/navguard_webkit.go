//go:build linux && production && !bindings

package wailsbridge

/*
#cgo linux,!webkit2_41 pkg-config: gtk+-3.0 webkit2gtk-4.0
#cgo linux,webkit2_41 pkg-config: gtk+-3.0 webkit2gtk-4.1
#include <stdint.h>
void hearth_install_navigation_guard(uintptr_t guard);
*/
import "C"

import "runtime/cgo"

// installNavigationGuard hands g to the C side (navguard_webkit.c), which
// finds the window's WebKitWebView on the GTK main loop and connects its
// decide-policy signal. The handle lives as long as the process: the
// window never gets another webview.
func installNavigationGuard(g *NavigationGuard) error {
	C.hearth_install_navigation_guard(C.uintptr_t(cgo.NewHandle(g)))
	return nil
}

// hearthNavigationVerdict answers decide-policy for one navigation: 1 lets
// WebKit go on, 0 has it ignored. It runs on the GTK main thread.
//
//export hearthNavigationVerdict
func hearthNavigationVerdict(guard C.uintptr_t, uri *C.char, newWindow, linkClicked, userGesture C.int) C.int {
	g := cgo.Handle(guard).Value().(*NavigationGuard)
	n := Navigation{URI: C.GoString(uri), NewWindow: newWindow != 0, LinkClicked: linkClicked != 0, UserGesture: userGesture != 0}
	if g.decide(n) {
		return 1
	}
	return 0
}

// hearthNavigationGuardInstalled reports whether the webview was found.
//
//export hearthNavigationGuardInstalled
func hearthNavigationGuardInstalled(guard C.uintptr_t, ok C.int) {
	if g := cgo.Handle(guard).Value().(*NavigationGuard); g.Installed != nil {
		g.Installed(ok != 0)
	}
}
