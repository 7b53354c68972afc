package engine

// A prune needs the plan's history entries. Listing them costs a folder listing on every
// prune (a round trip on remote storage), so the Store remembers, per plan, the entries a
// listing found and adds each entry its own writes commit, for as long as the plan's
// revisions stay contiguous: a revision this process did not write (another process, an
// outcome left unknown) drops the memory, and the next prune lists again. Every
// knownListEvery-th prune lists anyway, to find what a crashed writer of another process
// left. Pruning from memory never drops more than a listing would: it knows a subset of
// the entries, so it counts fewer revisions and bytes against the bounds.

// knownListEvery is how many prunes in a row may go by the entries the Store knows, where
// another process could have left entries behind (not on a MemoryBackend).
const knownListEvery = 4

// maxKnownPlans bounds the plans whose entries one storage folder's Stores remember.
const maxKnownPlans = 1024

// noteEntry records that this process committed revision rev of name, keeping the entry e
// of the revision before it.
func (s *Store) noteEntry(name string, rev int64, e listedEntry) {
	sh := s.shared
	sh.knownMu.Lock()
	defer sh.knownMu.Unlock()
	k := sh.known[name]
	if k == nil {
		return
	}
	if k.through != rev-1 {
		delete(sh.known, name)
		return
	}
	k.entries = append(k.entries, e)
	k.through = rev
}

// forgetEntries drops what the Store knows of name's history: its next prune lists.
func (s *Store) forgetEntries(name string) {
	s.shared.knownMu.Lock()
	delete(s.shared.known, name)
	s.shared.knownMu.Unlock()
}

// knownEntriesAt returns a copy of name's entries when they are complete at revision rev
// and a listing is not due.
func (s *Store) knownEntriesAt(name string, rev int64) ([]listedEntry, bool) {
	s.shared.knownMu.Lock()
	defer s.shared.knownMu.Unlock()
	k := s.shared.known[name]
	if k == nil || k.through != rev || (k.prunes+1 >= knownListEvery && !s.inProcess) {
		return nil, false
	}
	out := make([]listedEntry, len(k.entries))
	for i, e := range k.entries {
		out[len(out)-1-i] = e
	}
	return out, true
}

// keepEntries records what a prune at revision rev kept; listed tells whether its entries
// came from a listing.
func (s *Store) keepEntries(name string, rev int64, kept []listedEntry, listed bool) {
	sh := s.shared
	sh.knownMu.Lock()
	defer sh.knownMu.Unlock()
	k := sh.known[name]
	if k == nil {
		if len(sh.known) >= maxKnownPlans {
			clear(sh.known)
		}
		k = &knownEntries{}
		sh.known[name] = k
	}
	k.entries = k.entries[:0]
	for i := len(kept) - 1; i >= 0; i-- { // kept is newest first
		if e := kept[i]; e.rev <= rev { // later ones belong to writes in flight elsewhere
			k.entries = append(k.entries, e)
		}
	}
	k.through = rev
	if listed {
		k.prunes = 0
	} else {
		k.prunes++
	}
}
