package prompt

import (
	"testing"

	"hearth/backend/providers"
)

func TestReplaceKeepsWhatAHookLeftAndRecounts(t *testing.T) {
	t.Parallel()
	p, err := Assemble(base(), tokenizer)
	if err != nil {
		t.Fatal(err)
	}
	orig := p.Messages()
	if len(orig) < 3 {
		t.Fatalf("the base prompt has %d messages", len(orig))
	}
	first, last := p.Blocks[0], p.Blocks[len(p.Blocks)-1]
	// A hook moved the last message first, edited the first and added one.
	edited := orig[0]
	edited.Content += " Be brief."
	msgs := append([]providers.Message{orig[len(orig)-1], edited}, orig[1:len(orig)-1]...)
	msgs = append(msgs, providers.Message{Role: providers.RoleSystem, Content: "Added by a hook."})
	p.Replace(msgs, tokenizer)

	if len(p.Blocks) != len(msgs) {
		t.Fatalf("%d blocks for %d messages", len(p.Blocks), len(msgs))
	}
	if p.Blocks[0].Source != last.Source || p.Blocks[0].Tokens != last.Tokens {
		t.Fatalf("the moved message lost its block: %+v, want %+v", p.Blocks[0], last)
	}
	if p.Blocks[1].Source != SourceHook || p.Blocks[1].Tokens <= first.Tokens {
		t.Fatalf("the edited message: %+v (was %+v)", p.Blocks[1], first)
	}
	added := p.Blocks[len(p.Blocks)-1]
	if added.Source != SourceHook || added.Tokens != tokensPerMessage+tokenizer.Count("Added by a hook.") {
		t.Fatalf("the added message: %+v", added)
	}
	sum := tokensReply
	for _, b := range p.Blocks {
		sum += b.Tokens
	}
	parts := 0
	for _, part := range p.Tokens.Parts {
		parts += part.Tokens
	}
	if p.Tokens.Total != sum || parts+tokensReply != sum {
		t.Fatalf("total %d, parts %d, blocks %d", p.Tokens.Total, parts, sum)
	}
	for i, m := range p.Messages() {
		if !SameMessage(m, msgs[i]) {
			t.Fatalf("message %d is %+v, want %+v", i, m, msgs[i])
		}
	}
}

func TestReplaceEndsAPrefillThatNoLongerEndsWithTheAssistant(t *testing.T) {
	t.Parallel()
	p := &Prompt{Prefill: true, Blocks: []Block{
		{Source: "main", Message: providers.Message{Role: providers.RoleSystem, Content: "Be kind."}},
		{Source: "continuePrefill", Message: providers.Message{Role: providers.RoleAssistant, Content: "Once"}},
	}}
	p.Replace(p.Messages(), tokenizer)
	if !p.Prefill {
		t.Fatal("an unchanged prompt lost its prefill")
	}
	p.Replace(append(p.Messages(), providers.Message{Role: providers.RoleUser, Content: "Go on."}), tokenizer)
	if p.Prefill {
		t.Fatal("a prompt ending with the user's message is still a prefill")
	}
}
