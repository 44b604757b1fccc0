//go:build bindings

package wailsbridge

const buildMode = "bindings"
