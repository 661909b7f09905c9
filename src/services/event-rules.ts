import { referenceRules } from './repository/reference-rules.js';
import type { Rule } from './rules.js';
import { workItemRules } from './work-items/work-item-rules.js';

/** Every rule of the record, in the order they run for an event (src/events/bus.ts). */
export const EVENT_RULES: Rule[] = [...referenceRules, ...workItemRules];
