#!/bin/sh
# A reviewer for `helix-gate approve` (config/approvals.yaml: `command: ./reviewer-stub.sh`).
# Called like `claude -p PROMPT --output-format json --json-schema SCHEMA ...` in the run
# folder, where input/ holds copies of the files to judge. It prints one result object;
# the verdict is `structured_output`, valid under approvals/verdict.schema.json.
verdict=${STUB_VERDICT:-approved}
printf '{"type":"result","subtype":"success","is_error":false,"total_cost_usd":0,'
printf '"structured_output":{"result":"%s","confidence":0.9,"findings":[],' "$verdict"
printf '"recommendations":[],"summary":"stub: %s after reading %s"}}\n' \
  "$verdict" "$(cd input && find . -type f | sort | paste -sd ' ' -)"
