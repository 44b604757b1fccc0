//go:build !(linux && production && !bindings)

package wailsbridge

func installNavigationGuard(*NavigationGuard) error { return ErrNoNavigationGuard }
