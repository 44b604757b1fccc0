package chats

import "testing"

// FuzzMessageJSONLen: messageJSONLen counts exactly the bytes
// appendMessageJSON writes, whatever the text (escapes, control
// characters, U+2028, bytes that are not UTF-8), the id, the active swipe
// and the objects.
func FuzzMessageJSONLen(f *testing.F) {
	f.Add("", "Seraphina", "plain", "\"q\" \\ \n\r\t\x01\x1f é 日本 \u2028\u2029 \xff\xe2\x80", true, false, 1, `{"a":1}`, `{"send_date":"x","z":[1]}`)
	f.Add("", "abcdefgh", "abcdefghijklmno\"pqrstuvw\x7fxyzABCDEFG\x1fHIJKLMNOP\\QRSTUVWXYZ012345é6789abcdefghij\xffklmnop", "Quietly, the river traced the hem\nof her cloak.\u2028", false, false, 0, `{}`, `{}`)
	f.Add("0b8d7a9e-0000-4000-8000-000000000000", "", "", "", false, true, 0, `{}`, `{}`)
	f.Fuzz(func(t *testing.T, id, name, a, b string, isUser, isSystem bool, swipeID int, extra, fields string) {
		swipes := []string{a, b}
		swipeID = ((swipeID % 2) + 2) % 2
		infos := [][]byte{[]byte(extra), []byte(fields)}
		want := len(appendMessageJSON(nil, id, name, isUser, isSystem, swipeID, swipes, infos, []byte(extra), []byte(fields)))
		if got := messageJSONLen(id, name, isUser, isSystem, swipeID, swipes, infos, []byte(extra), []byte(fields)); got != want {
			t.Fatalf("messageJSONLen = %d, appendMessageJSON wrote %d", got, want)
		}
		one := len(appendMessageJSON(nil, id, name, isUser, isSystem, 0, swipes[:1], infos[:1], []byte(extra), nil))
		if got := messageJSONLen(id, name, isUser, isSystem, 0, swipes[:1], infos[:1], []byte(extra), nil); got != one {
			t.Fatalf("one swipe: messageJSONLen = %d, appendMessageJSON wrote %d", got, one)
		}
	})
}
