import {
  CreateLabelInput,
  DeleteLabelInput,
  Label,
  ListLabelsQuery,
  UpdateLabelByNameInput,
  UpdateLabelInput,
} from '../schemas/work-items.js';
import { projectItems, projectRoute } from './scoped.js';
import { LabelsService } from '../services/work-items/labels.js';
import { defineModule } from './module.js';
import * as workItemsTables from '../db/entities/work-items.js';

/** The original's Labels and Subscriptions APIs authenticate every call, reads too. */
const auth = 'user' as const;

const label = projectItems({ path: '/labels', id: 'label_id', service: (ctx) => new LabelsService(ctx) });

export const labels = {
  list: label.list({
    summary:
      'A project’s labels by name, with the counts of the open and closed issues the caller may read that carry them; ' +
      '`search` in the name and description',
    auth,
    ability: 'read_label',
    input: ListLabelsQuery,
    list: Label,
  }),
  get: label.get({
    summary: 'One label, by ID or (URL-encoded) name, as later clients read it',
    auth,
    ability: 'read_label',
    response: Label,
  }),
  create: label.create({
    summary:
      'Create a label (reporters): `color` as `#RRGGBB`, `#RGB` or a CSS colour name; 409 `Label already exists` for a name the project ' +
      'has, 400 with the validation messages otherwise',
    auth,
    ability: 'admin_label',
    input: CreateLabelInput,
    response: Label,
  }),
  updateByName: projectRoute({
    method: 'PUT',
    path: '/labels',
    summary:
      'Change the label named `name`: `new_name`, `color`, `description`, `priority` (at least one; reporters), ' +
      'as the specification’s era calls it',
    auth,
    ability: 'admin_label',
    input: UpdateLabelByNameInput,
    response: Label,
    run: (ctx, { project }, input) => new LabelsService(ctx).updateByName(project, input),
  }),
  update: label.update({
    summary: 'Change a label named by ID or name in the path (reporters), as later clients call it',
    auth,
    ability: 'admin_label',
    input: UpdateLabelInput,
    response: Label,
  }),
  deleteByName: projectRoute({
    method: 'DELETE',
    path: '/labels',
    summary: 'Delete the label named `name` (reporters), as the specification’s era calls it: it leaves every issue',
    auth,
    ability: 'admin_label',
    input: DeleteLabelInput,
    run: (ctx, { project }, input) => new LabelsService(ctx).deleteByName(project, input),
  }),
  delete: label.delete({
    summary: 'Delete a label named by ID or name in the path (reporters), as later clients call it',
    auth,
    ability: 'admin_label',
  }),
  subscribe: projectRoute({
    method: 'POST',
    path: '/labels/:label_id/subscribe',
    summary: 'Hear of the issues that carry a label (304 when subscribed already)',
    auth,
    ability: 'read_label',
    response: Label,
    run: (ctx, { project, label_id }) => new LabelsService(ctx).subscribe(project, label_id),
  }),
  unsubscribe: projectRoute({
    method: 'POST',
    path: '/labels/:label_id/unsubscribe',
    summary: 'Stop hearing of a label’s issues (304 when not subscribed)',
    auth,
    ability: 'read_label',
    response: Label,
    run: (ctx, { project, label_id }) => new LabelsService(ctx).unsubscribe(project, label_id),
  }),
};

export const labelsModule = defineModule({
  routes: { labels },
  descriptions: {
    labels: 'Labels of projects: listed with the counts of the issues that carry them, created, changed, deleted and subscribed to',
  },
  entities: [workItemsTables.Label, workItemsTables.LabelLink],
});
