// Package board serves a live plan board for people: a web page, a JSON API and a stream of
// server-sent events over a plan.Store, mounted on any net/http server.
//
//	store, _ := plan.NewStore(&plan.StoreConfig{Backend: backend})
//	http.Handle("/board/", http.StripPrefix("/board", board.New(store, board.WithPerson(whoIsIt))))
//
// The page lists every plan with its progress, its steps with their state and holder, its
// revision and who made the last change, and follows every change live (Store.Watch). A
// signed-in person approves or rejects a plan at the revision shown and hands steps over;
// every action goes through the Store with the revision the person saw, so a page that
// fell behind gets a conflict and never overwrites what an agent wrote meanwhile. Without
// WithPerson the board is read-only. A board that names one person whatever the request
// (as on loopback, where every local user reaches it) needs WithSecret too. See
// docs/board.md for the API.
package board
