package wailsbridge

import (
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/wailsapp/wails/v2/pkg/options/linux"
)

func TestGPUPolicy(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("the render-node check is Linux's")
	}
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == GPUEnv {
				return v
			}
			return ""
		}
	}
	gpu := func(string) ([]string, error) { return []string{"/dev/dri/renderD128"}, nil }
	none := func(string) ([]string, error) { return nil, nil }
	broken := func(string) ([]string, error) { return nil, errors.New("bad pattern") }
	cases := []struct {
		name string
		env  string
		glob func(string) ([]string, error)
		want linux.WebviewGpuPolicy
		err  bool
	}{
		{"a render node composites on demand", "", gpu, linux.WebviewGpuPolicyOnDemand, false},
		{"no render node paints on the CPU", "", none, linux.WebviewGpuPolicyNever, false},
		{"a failed look is no render node", "", broken, linux.WebviewGpuPolicyNever, false},
		{"auto is the default", " Auto ", none, linux.WebviewGpuPolicyNever, false},
		{"on overrides a missing node", "on", none, linux.WebviewGpuPolicyOnDemand, false},
		{"off overrides a node", "OFF", gpu, linux.WebviewGpuPolicyNever, false},
		{"a bad value keeps the automatic choice and says so", "yes", gpu, linux.WebviewGpuPolicyOnDemand, true},
	}
	for _, c := range cases {
		got, err := GPUPolicy(env(c.env), c.glob)
		if got != c.want || (err != nil) != c.err {
			t.Errorf("%s: got %v, %v; want %v, error %v", c.name, got, err, c.want, c.err)
		}
		if err != nil && !strings.Contains(err.Error(), GPUEnv) {
			t.Errorf("%s: the error does not name $%s: %v", c.name, GPUEnv, err)
		}
	}
}
