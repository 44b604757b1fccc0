//go:build !bindings && !production && !dev

package wailsbridge

const buildMode = "plain"
