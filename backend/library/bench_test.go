package library_test

import (
	"context"
	"path/filepath"
	"testing"

	"hearth/backend/app"
)

// BenchmarkImportLibrary imports the fixture library with the generated
// cards and chats (the 5,000-message chat and 48 chats of 20 messages,
// bodies of about 1.2 KB with two swipes, as chatgen writes them) into a
// fresh data dir, and reports chat messages imported per second over the
// whole import — lorebooks, cards, chats, personas, presets. Opening the
// app is outside the timer.
func BenchmarkImportLibrary(b *testing.B) {
	_, userDir := install(b)
	generated(b, userDir, 1200)
	// Writing the fixture library is not the import: msgs/s divides by the
	// timed time, which without this reset included it on every b.N tried.
	b.ResetTimer()
	messages := 0
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		a, err := app.Open(context.Background(), filepath.Join(b.TempDir(), "data"))
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		sum, err := a.Library.Import(b.Context(), userDir, nil)
		b.StopTimer()
		if err != nil || len(sum.Failed) > 0 {
			b.Fatalf("import: %v %+v", err, sum.Failed)
		}
		messages += sum.Messages
		_ = a.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(messages)/b.Elapsed().Seconds(), "msgs/s")
}
