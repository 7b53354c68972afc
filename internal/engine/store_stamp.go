package engine

import (
	"context"
	"time"
)

// A folder stamp lets List skip the backend's listing: while the stamp taken before a
// listing that came wholly from the cache stays the same, so do the folder's plan files,
// and List answers from that listing. Every write and delete of the Store moves the stamp
// (it renames or removes a file in the folder, or bumps the folder's counter), and so do
// other processes' writes through any Store; forget drops the trust at once for this
// process's own writes anyway.
//
// On a backend whose ModifiedAt is not strict (LocalBackend), another program can rewrite
// a plan file in place without moving the stamp, so there a listing is trusted for at most
// DefaultFullScan after it was taken, as the watch does.

// DefaultFullScan bounds how long a plan file rewritten in place (which leaves its
// folder's stamp alone) can go unseen by a watcher that trusts the stamp.
const DefaultFullScan = 5 * time.Second

// folderStampBefore returns the folder's stamp when it can vouch for a listing taken after
// it: the backend has one, it answered, and the folder did not change so lately that a
// second change could leave the stamp as it is.
func (s *Store) folderStampBefore(ctx context.Context) (string, bool) {
	if s.stamper == nil {
		return "", false
	}
	st, recent, err := s.stamper.FolderStamp(ctx, s.Dir)
	if err != nil || recent {
		return "", false
	}
	return st, true
}

// unchangedListing returns the last listing when stamp still vouches for it.
func (s *Store) unchangedListing(stamp string, now time.Time) ([]*cachedSummary, []Warning, bool) {
	s.shared.cacheMu.Lock()
	defer s.shared.cacheMu.Unlock()
	l := s.shared.stamped
	if l == nil || l.stamp != stamp || (!s.strict && now.Sub(l.at) >= DefaultFullScan) {
		return nil, nil, false
	}
	return s.shared.sorted, l.strays, true
}

// vouch records that stamp, taken before the listing now in shared.sorted, vouches for it.
// Called with cacheMu held.
func (s *Store) vouch(stamp string, now time.Time, strays []Warning) {
	s.shared.stamped = &stampedListing{stamp: stamp, at: now, strays: strays}
}
