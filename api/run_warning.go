package api

// RunWarning tells a host, at the start of a run, of a set-up that weakens what plan mode
// keeps out of the model's reach without stopping the run: it is an event of the run whose
// Output.CustomizedOutput is the RunWarning. Reason is a stable word (WarningKeyLinked);
// Path is the file it is about; Message says it in English.
type RunWarning struct {
	Reason  string `json:"reason"`
	Path    string `json:"path,omitempty"`
	Message string `json:"message"`
}

// WarningKeyLinked: the approval key file has more than one name (a hard link). The Store
// never writes one, so someone linked it, and whoever reads the other name can seal
// approvals; the file guard refuses every name of the key it is given, but a tool it does
// not see may read it.
const WarningKeyLinked = "key_linked"
