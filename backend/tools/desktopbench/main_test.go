package main

import (
	"strings"
	"testing"
)

func TestPrintRun(t *testing.T) {
	var b strings.Builder
	printRun(&b, map[string]float64{
		"tailInViewMs": 265, "wholeChatMs": 1610, "seedMs": 8000,
		"selectTailInViewMs": 55, "selectWholeChatMs": 1378, "selectMaxKeyHandlerMs": 2,
		"chunkToHandlerMs": 1.25, "streamMaxTaskMs": 17, "streamCommitMaxTaskMs": 31,
		"rssAfterTenOpensMB": 141.5, "rssIdle30sMB": 88.2, "webRssAfterTenOpensMB": 610, "webRssIdle30sMB": 402.7,
		"extBridgeOverheadP50Ms": 0.87, "extFrameCallP50Ms": 1.9, "pageCallP50Ms": 1.03,
	})
	want := "BenchmarkDesktopChat10k/click/tailInView\t1\t265 ms\n" +
		"BenchmarkDesktopChat10k/click/wholeChat\t1\t1610 ms\n" +
		"BenchmarkDesktopChat10k/select/tailInView\t1\t55 ms\n" +
		"BenchmarkDesktopChat10k/select/wholeChat\t1\t1378 ms\n" +
		"BenchmarkDesktopChat10k/select/maxKeyHandler\t1\t2 ms\n" +
		"BenchmarkDesktopChat10k/rssAfterTenOpens\t1\t141.5 MB\n" +
		"BenchmarkDesktopChat10k/rssIdle30s\t1\t88.2 MB\n" +
		"BenchmarkDesktopChat10k/webProcessRssAfterTenOpens\t1\t610 MB\n" +
		"BenchmarkDesktopChat10k/webProcessRssIdle30s\t1\t402.7 MB\n" +
		"BenchmarkDesktopGenerate/chunkToHandler\t1\t1.25 chunk-handler-ms\n" +
		"BenchmarkDesktopGenerate/streamMaxTask\t1\t17 ms\n" +
		"BenchmarkDesktopGenerate/streamCommitMaxTask\t1\t31 ms\n" +
		"BenchmarkDesktopExtensions/bridgeOverheadP50\t1\t0.87 ms\n" +
		"BenchmarkDesktopExtensions/frameCallP50\t1\t1.9 ms\n" +
		"BenchmarkDesktopExtensions/pageCallP50\t1\t1.03 ms\n"
	if b.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", b.String(), want)
	}
}

func TestPrintExtensionRun(t *testing.T) {
	for _, tc := range []struct {
		name    string
		metrics map[string]float64
		want    string
	}{
		{"none", map[string]float64{"startExtensions": 0, "startWithExtensionsMs": 612, "uiStartMs": 612, "seedMs": 8000},
			"BenchmarkDesktopExtensions/startWith0\t1\t612 ms\n"},
		{"twenty", map[string]float64{
			"startExtensions": 20, "startWithExtensionsMs": 1029, "uiStartMs": 607,
			"extEventFanout20Ms": 16, "extEventFanoutWarm20Ms": 4.5, "extEventFanout10Ms": 99,
		},
			"BenchmarkDesktopExtensions/startWith20\t1\t1029 ms\n" +
				"BenchmarkDesktopExtensions/eventFanout20\t1\t16 ms\n" +
				"BenchmarkDesktopExtensions/eventFanoutWarm20\t1\t4.5 ms\n"},
		// A run that is not an extension bench run prints nothing here.
		{"normal run", map[string]float64{"startWithExtensionsMs": 700, "extBridgeOverheadP50Ms": 1}, ""},
	} {
		var b strings.Builder
		printExtensionRun(&b, tc.metrics)
		if b.String() != tc.want {
			t.Errorf("%s: got\n%s\nwant\n%s", tc.name, b.String(), tc.want)
		}
	}
}

func TestPrintPageRun(t *testing.T) {
	for _, tc := range []struct {
		name    string
		metrics map[string]float64
		want    string
	}{
		{"none enabled", map[string]float64{
			"startPageExtensions": 0, "startWithPageExtensionsMs": 598, "uiStartMs": 598, "compatCostWith0": 0,
			"compatResourcesWith0": 0, "compatKBWith0": 0, "compatSpanMsWith0": 0, "listCallsWith0": 1, "seedMs": 3000,
		},
			"BenchmarkDesktopPageExtensions/startWith0\t1\t598 ms\n" +
				"BenchmarkDesktopPageExtensions/uiStartWith0\t1\t598 ms\n" +
				"BenchmarkDesktopPageExtensions/compatCostWith0\t1\t0 ms\n" +
				"BenchmarkDesktopPageExtensions/compatFilesWith0\t1\t0 files\n" +
				"BenchmarkDesktopPageExtensions/listCallsWith0\t1\t1 calls\n"},
		{"one enabled", map[string]float64{
			"startPageExtensions": 1, "startWithPageExtensionsMs": 702, "uiStartMs": 610, "pageExtensionRanMs": 702, "pageExtensionAfterUiMs": 92, "startFromBootMs": 540,
			"compatResourcesWith1": 14, "compatKBWith1": 260.5, "compatSpanMsWith1": 41.5,
			"compatRuntimeStageMsWith1": 60, "compatPackageStageMsWith1": 25,
			"compatRuntimeLoadMsWith1": 40, "compatUiWaitMsWith1": 3, "compatInstallMsWith1": 5, "compatLinkMsWith1": 6,
		},
			"BenchmarkDesktopPageExtensions/startWith1\t1\t702 ms\n" +
				"BenchmarkDesktopPageExtensions/uiStartWith1\t1\t610 ms\n" +
				"BenchmarkDesktopPageExtensions/startFromBootWith1\t1\t540 ms\n" +
				"BenchmarkDesktopPageExtensions/ranAfterUiWith1\t1\t92 ms\n" +
				"BenchmarkDesktopPageExtensions/runtimeStageWith1\t1\t60 ms\n" +
				"BenchmarkDesktopPageExtensions/packageStageWith1\t1\t25 ms\n" +
				"BenchmarkDesktopPageExtensions/runtimeLoadWith1\t1\t40 ms\n" +
				"BenchmarkDesktopPageExtensions/uiWaitWith1\t1\t3 ms\n" +
				"BenchmarkDesktopPageExtensions/installWith1\t1\t5 ms\n" +
				"BenchmarkDesktopPageExtensions/linkWith1\t1\t6 ms\n" +
				"BenchmarkDesktopPageExtensions/compatSpanWith1\t1\t41.5 ms\n" +
				"BenchmarkDesktopPageExtensions/compatFilesWith1\t1\t14 files\n"},
		// Another run's metrics print nothing here.
		{"extension bench run", map[string]float64{"startExtensions": 10, "startWithExtensionsMs": 700}, ""},
	} {
		var b strings.Builder
		printPageRun(&b, tc.metrics)
		if b.String() != tc.want {
			t.Errorf("%s: got\n%s\nwant\n%s", tc.name, b.String(), tc.want)
		}
	}
}
