package chats

import (
	"errors"
	"testing"

	"hearth/backend/apperr"
)

// TestCheckMessageCount: the cap itself passes, one more is
// validation.too_many with the cap and the count in its details.
func TestCheckMessageCount(t *testing.T) {
	if err := CheckMessageCount(MaxMessagesPerCall, "messages"); err != nil {
		t.Fatalf("at the cap: %v", err)
	}
	err := CheckMessageCount(MaxMessagesPerCall+1, "updates")
	var ae *apperr.Error
	if !errors.As(err, &ae) || ae.Code != apperr.CodeTooMany {
		t.Fatalf("over the cap: %v", err)
	}
	if ae.Details["max"] != MaxMessagesPerCall || ae.Details["got"] != MaxMessagesPerCall+1 {
		t.Errorf("details = %v", ae.Details)
	}
}
