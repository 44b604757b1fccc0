package chats

// SetJsonlMessageLimit lowers the messages one import may hold, for a test
// that must reach the cap; the returned function restores it. Only serial
// tests may call it (parallel ones read the limit).
func SetJsonlMessageLimit(n int) (restore func()) {
	old := jsonlMessageLimit
	jsonlMessageLimit = n
	return func() { jsonlMessageLimit = old }
}
