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
		"BenchmarkDesktopGenerate/streamCommitMaxTask\t1\t31 ms\n"
	if b.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", b.String(), want)
	}
}
