package wailsbridge

import (
	"fmt"
	"runtime"
	"strings"

	"github.com/wailsapp/wails/v2/pkg/options/linux"
)

// GPUEnv is the variable that overrides GPUPolicy's choice.
const GPUEnv = "HEARTH_GPU"

// renderNodes is where Linux lists the GPUs a program may render with.
const renderNodes = "/dev/dri/renderD*"

// GPUPolicy decides whether the Linux webview composites with OpenGL.
//
// WebKitGTK composites through OpenGL whenever a page asks for layers. On
// a machine with no GPU render node (a VM, a container, a remote or Xvfb
// session) that OpenGL is Mesa's software rasterizer, and compositing
// each frame through it is slower than painting without it: in the
// desktop self-test a reply streaming into the 10,000-message chat held
// the main thread 30–70 ms per frame with compositing and under 25 ms
// without. So without a render node the webview paints on the CPU; with
// one it composites on demand, as WebKit does by default.
//
// $HEARTH_GPU ("on", "off" or "auto") overrides the choice, for a GPU
// whose driver misbehaves or a machine the check misjudges. Any other
// value is reported in the error and the automatic choice stands. getenv
// and glob are os.Getenv and filepath.Glob outside tests.
func GPUPolicy(getenv func(string) string, glob func(string) ([]string, error)) (linux.WebviewGpuPolicy, error) {
	switch v := strings.ToLower(strings.TrimSpace(getenv(GPUEnv))); v {
	case "on":
		return linux.WebviewGpuPolicyOnDemand, nil
	case "off":
		return linux.WebviewGpuPolicyNever, nil
	case "", "auto":
		return autoGPUPolicy(glob), nil
	default:
		return autoGPUPolicy(glob), fmt.Errorf("$%s is %q; it takes on, off or auto (the default)", GPUEnv, v)
	}
}

func autoGPUPolicy(glob func(string) ([]string, error)) linux.WebviewGpuPolicy {
	if runtime.GOOS != "linux" {
		return linux.WebviewGpuPolicyOnDemand
	}
	if nodes, err := glob(renderNodes); err == nil && len(nodes) > 0 {
		return linux.WebviewGpuPolicyOnDemand
	}
	return linux.WebviewGpuPolicyNever
}
