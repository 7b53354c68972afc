package engine

func ptrTo[T any](v T) *T { return &v }
