import type { NeutralResult } from './neutral';

// A JSON answer whose text a handler has already made (a list hashes its text for its
// ETag) is sent as that text rather than serialised a second time: for a page of rows the
// serialisation is most of the answer's own cost. The text is tied to the value it was
// made from, so a wrapper that answers another value (`{ ...result, json: other }`) is
// serialised afresh, while one that only adds headers keeps it.

const TEXT = Symbol('crudsmith.jsonText');

type WithText = NeutralResult & { [TEXT]?: { json: unknown; text: string } };

/** `result`, carrying `text`: the JSON of its `json`, made already. */
export function withJsonText(result: NeutralResult, text: string): NeutralResult {
  (result as WithText)[TEXT] = { json: result.json, text };
  return result;
}

/** The JSON text made for the result's current `json`, when a handler made one. */
export function jsonTextOf(result: NeutralResult): string | undefined {
  const made = (result as WithText)[TEXT];
  return made !== undefined && made.json === result.json ? made.text : undefined;
}
