import type { Namespace } from '../../db/entities/index.js';
import { keyOf } from '../../db/rows.js';
import type { Group as GroupShape } from '../../schemas/groups.js';
import type { View } from './view.js';

/** Groups as anyone sees them; `statistics` (bytes stored by each group's projects) when asked by an administrator. */
export function presentGroups(groups: Namespace[], view: View, statistics?: Map<number, number>): GroupShape[] {
  return groups.map((group) => {
    const shape: GroupShape = {
      id: group.id,
      name: group.name,
      path: group.path,
      description: group.description ?? '',
      visibility: group.visibility,
      lfs_enabled: group.lfsEnabled,
      avatar_url: null,
      web_url: `${view.baseUrl}/groups/${group.fullPath}`,
      request_access_enabled: group.requestAccessEnabled,
      full_name: group.fullName,
      full_path: group.fullPath,
      parent_id: group.parent ? keyOf(group.parent) : null,
    };
    if (statistics) {
      // Nothing but repositories takes storage yet: no LFS objects, no job artifacts.
      const size = statistics.get(group.id) ?? 0;
      shape.statistics = { storage_size: size, repository_size: size, lfs_objects_size: 0, job_artifacts_size: 0 };
    }
    return shape;
  });
}
