package tools

import (
	"github.com/cloudwego/eino/schema"
)

// param is one tool argument. The same value builds the schema the model sees and reads the
// argument, so a misspelt name fails to compile instead of silently reading nothing.
type param struct {
	Name     string
	typ      schema.DataType
	required bool
}

// Every tool argument. Descriptions are the texts "<tool>.<name>".
var (
	pName      = param{"name", schema.String, true}
	pContent   = param{"content", schema.String, true}
	pTitle     = param{"title", schema.String, false}
	pAuthor    = param{"author", schema.String, false}
	pStatus    = param{"status", schema.String, false} // a plan's status, kept when omitted
	pNewStatus = param{"status", schema.String, true}  // set_plan_status
	pStepState = param{"status", schema.String, false} // update_plan_step: the step's state; completed when omitted with next
	pStepPlan  = param{"name", schema.String, false}   // update_plan_step: omitted, the one plan it can be (step_defaults.go)
	pStep      = param{"step", schema.Integer, false}  // update_plan_step: omitted with in_progress, the next free step
	pNote      = param{"note", schema.String, false}
	pEvidence  = param{"evidence", schema.String, false} // update_plan_step: what shows a step done
	pRevision  = param{"last_known_revision", schema.Integer, false}
	pSince     = param{"since_revision", schema.Integer, false} // read_plan: only the changes since
	pTakeover  = param{"takeover", schema.Boolean, false}       // update_plan_step: move a step another agent holds
	pNext      = param{"next", schema.Boolean, false}           // update_plan_step: finish a step and take the next ready one
	pPath      = param{"path", schema.String, true}
	pGoal      = param{"goal", schema.String, true}
	// pMessage is request_plan_approval's note to the person.
	pMessage = param{"message", schema.String, false}
	// list_plans: a page of plans.
	pLimit        = param{"limit", schema.Integer, false}
	pCursor       = param{"cursor", schema.String, false}
	pStatusFilter = param{"status", schema.String, false}
	// pFilePath is accepted for pPath (Eino's file tools name it so); never in a schema.
	pFilePath = param{"file_path", schema.String, true}
)
