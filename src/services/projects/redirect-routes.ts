import { rule } from '../rules.js';
import { keepOldPathsUnder, keepOldProjectPath, userNamespaceId } from './redirect-route-store.js';

/**
 * The paths projects had, kept when a project, its group or its user's namespace is renamed or moved (in the write's
 * transaction), so that git clients that still name one are redirected (src/http/git.ts).
 */
export const redirectRules = [
  rule(['project.renamed', 'project.transferred'], (ctx, event) => keepOldProjectPath(ctx.em, event.project_id!, event.data.old_path)),
  rule(['group.renamed'], (ctx, event) => keepOldPathsUnder(ctx.em, event.group_id!, event.data.old_path)),
  rule(['user.renamed'], async (ctx, event) => {
    const namespaceId = await userNamespaceId(ctx.em, event.target_id!);
    if (namespaceId !== null) await keepOldPathsUnder(ctx.em, namespaceId, event.data.old_path);
  }),
];
