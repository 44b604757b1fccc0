package chats_test

import (
	"encoding/json"
	"testing"

	"hearth/backend/internal/chatgen"
)

// benchJsonlMessages is the size of the benchmark chats: the 10k chat of
// DESIGN §8 (1.2 KB bodies, two swipes, per-swipe extra).
const benchJsonlMessages = 10_000

func benchJsonlFile(b *testing.B) string {
	b.Helper()
	opts := chatgen.Options{Seed: 5, Messages: benchJsonlMessages}
	text, err := chatgen.JSONL(opts, map[string]any{"integrity": "bench"}, chatgen.Messages(opts))
	if err != nil {
		b.Fatal(err)
	}
	return string(text)
}

// BenchmarkImportJsonl imports a 10,000-message SillyTavern file through
// chat.importJsonl — the router's argument decoding, the file's, the
// transaction — and reports messages per second. The call's JSON is
// encoded once, as a client would send it; each imported chat is deleted
// outside the timer, so every run writes into a database of the same size.
func BenchmarkImportJsonl(b *testing.B) {
	text := benchJsonlFile(b)
	r := openRig(b, b.TempDir())
	args, err := json.Marshal([]any{map[string]any{"avatar": r.avatar}, map[string]any{"fileName": "bench import", "text": text}})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		out, err := r.app.Router.Invoke(b.Context(), "chat.importJsonl", args)
		b.StopTimer()
		var sum rigSummary
		if err != nil || json.Unmarshal(out, &sum) != nil || sum.MessageCount != benchJsonlMessages {
			b.Fatalf("import: %v, %d messages", err, sum.MessageCount)
		}
		r.call("chat.delete", sum.ChatID)
		b.StartTimer()
	}
	b.ReportMetric(float64(benchJsonlMessages*b.N)/b.Elapsed().Seconds(), "msgs/s")
}

// BenchmarkExportJsonl exports a 10,000-message chat through
// chat.exportJsonl: the whole file, encoded as the call's JSON answer.
func BenchmarkExportJsonl(b *testing.B) {
	r := openRig(b, b.TempDir())
	sum := r.mustImport("bench export", benchJsonlFile(b))
	b.SetBytes(int64(len(r.call("chat.exportJsonl", sum.ChatID))))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r.call("chat.exportJsonl", sum.ChatID)
	}
}
