import type { Runner } from '../../db/entities/index.js';
import type { Runner as RunnerShape, RunnerDetails, RunnerGroup, RunnerProject } from '../../schemas/runners.js';

/** How long after its last contact a runner is still online, as in the original (`ONLINE_CONTACT_TIMEOUT`). */
export const ONLINE_FOR_MS = 60 * 60 * 1000;

/** The last contact after which a runner is online at `now`: what the lists' `online` and `offline` compare with. */
export const onlineSince = (now: Date) => new Date(now.getTime() - ONLINE_FOR_MS);

const isOnline = (runner: Runner, now: Date) => runner.contactedAt != null && runner.contactedAt.getTime() > onlineSince(now).getTime();

/** The original's Ci::Runner#status: never contacted, paused, or active and online or not. */
function statusOf(runner: Runner, now: Date): RunnerShape['status'] {
  if (runner.contactedAt == null) return 'not_connected';
  if (!runner.active) return 'paused';
  return isOnline(runner, now) ? 'online' : 'offline';
}

/** A runner as lists show it (and as enabling it in a project answers). */
export function presentRunner(runner: Runner, now: Date): RunnerShape {
  return {
    id: runner.id,
    description: runner.description,
    ip_address: runner.ipAddress ?? null,
    active: runner.active,
    paused: !runner.active,
    is_shared: runner.runnerType === 'instance_type',
    name: runner.name ?? null,
    online: isOnline(runner, now),
    status: statusOf(runner, now),
  };
}

/** What a runner's detail embeds beside the runner: read for the viewer (services/ci/runner-store.ts). */
export interface RunnerRelations {
  projects: RunnerProject[];
  groups: RunnerGroup[];
  /** Its token, when the viewer may see it. */
  token?: string;
}

export function presentRunnerDetails(runner: Runner, relations: RunnerRelations, now: Date): RunnerDetails {
  const details: RunnerDetails = {
    ...presentRunner(runner, now),
    runner_type: runner.runnerType,
    tag_list: [...runner.tagList],
    run_untagged: runner.runUntagged,
    locked: runner.locked,
    maximum_timeout: runner.maximumTimeout ?? null,
    access_level: runner.accessLevel,
    version: runner.version ?? null,
    revision: runner.revision ?? null,
    platform: runner.platform ?? null,
    architecture: runner.architecture ?? null,
    contacted_at: runner.contactedAt ? runner.contactedAt.toISOString() : null,
    projects: relations.projects,
    groups: relations.groups,
  };
  if (relations.token !== undefined) details.token = relations.token;
  return details;
}
