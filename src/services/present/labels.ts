import type { Label } from '../../schemas/work-items.js';
import { textColorFor } from '../work-items/label-colors.js';
import type { LabelRow } from '../work-items/label-store.js';

/** A project's label with its counts (of the issues the viewer may read) and whether the viewer hears of it. */
export function presentLabel(row: LabelRow): Label {
  return {
    id: row.id,
    name: row.title,
    color: row.color,
    text_color: textColorFor(row.color),
    description: row.description,
    open_issues_count: row.open_issues_count,
    closed_issues_count: row.closed_issues_count,
    open_merge_requests_count: row.open_merge_requests_count,
    priority: row.priority,
    // A label's followers are only those who chose to be.
    subscribed: row.subscribed ?? false,
    is_project_label: true,
  };
}
