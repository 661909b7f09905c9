import type { Namespace } from '../../db/entities/index.js';
import { keyOf } from '../../db/rows.js';
import type { Namespace as NamespaceShape } from '../../schemas/namespaces.js';
import type { View } from './view.js';

/**
 * Namespaces as the viewer sees them. `administered` holds the groups of the page the viewer may administer
 * (maintainer or owner, inherited) with their members' count, subgroups' included: only they show it.
 */
export function presentNamespaces(namespaces: Namespace[], administered: Map<number, number>, _view: View): NamespaceShape[] {
  return namespaces.map((namespace) => {
    const shape: NamespaceShape = {
      id: namespace.id,
      name: namespace.name,
      path: namespace.path,
      kind: namespace.kind,
      full_path: namespace.fullPath,
    };
    if (namespace.kind !== 'group') return shape;
    shape.parent_id = namespace.parent ? keyOf(namespace.parent) : null;
    const members = administered.get(namespace.id);
    if (members !== undefined) shape.members_count_with_descendants = members;
    return shape;
  });
}
