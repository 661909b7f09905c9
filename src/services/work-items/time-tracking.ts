import { BadRequestError } from '../../errors.js';
import type { SpentTimeInput, TimeEstimateInput, TimeStats } from '../../schemas/work-items.js';
import { presentTimeStats } from '../present/issues.js';
import { Service } from '../service.js';
import { parseDuration } from './durations.js';
import { insertNote, insertTimelog } from './note-store.js';
import { setTime, timeOf } from './work-item-store.js';
import { projectOf, type WorkItemTarget } from './work-item-target.js';
import { timeEstimateNote, timeSpentNote } from './system-notes.js';

/**
 * Time tracking of issues and merge requests, in the original's duration language (`3h30m`, `1w 2d`; a day of 8 hours, a week of 5
 * days): an estimate, and time spent logged (negative to take some back, never below none), each change recorded
 * in a system note.
 */
export class TimeTrackingService extends Service {
  /** GET .../time_stats. */
  async stats(issue: WorkItemTarget): Promise<TimeStats> {
    const { estimate, spent } = await timeOf((await this.ctx.view()).rows, issue);
    return presentTimeStats(estimate, spent);
  }

  /** POST .../time_estimate: the estimate set (400 for what is no duration, or a negative one). */
  async setEstimate(issue: WorkItemTarget, input: TimeEstimateInput): Promise<TimeStats> {
    const seconds = parseDuration(input.duration);
    if (seconds === null) throw BadRequestError.invalid('time_estimate', 'has an invalid format');
    if (seconds < 0) throw BadRequestError.invalid('time_estimate', 'must be greater than or equal to 0');
    return this.estimate(issue, seconds);
  }

  /** POST .../reset_time_estimate. */
  resetEstimate(issue: WorkItemTarget): Promise<TimeStats> {
    return this.estimate(issue, 0);
  }

  /** POST .../add_spent_time: time logged by the caller; 400 when taking back more than was spent. */
  async addSpent(issue: WorkItemTarget, input: SpentTimeInput): Promise<TimeStats> {
    const seconds = parseDuration(input.duration);
    if (seconds === null || seconds === 0) throw BadRequestError.invalid('time_spent', 'has an invalid format');
    return this.spend(issue, seconds);
  }

  /** POST .../reset_spent_time: what was spent taken back whole (a log of minus the total). */
  resetSpent(issue: WorkItemTarget): Promise<TimeStats> {
    return this.spend(issue, 'reset');
  }

  private async estimate(issue: WorkItemTarget, seconds: number): Promise<TimeStats> {
    const em = this.ctx.em;
    const now = this.ctx.now();
    const before = await timeOf(em, issue);
    if (before.estimate !== seconds) {
      await setTime(em, issue, { estimate: seconds }, now);
      await this.note(issue, timeEstimateNote(seconds), now);
    }
    return presentTimeStats(seconds, before.spent);
  }

  private async spend(issue: WorkItemTarget, seconds: number | 'reset'): Promise<TimeStats> {
    const em = this.ctx.em;
    const now = this.ctx.now();
    const before = await timeOf(em, issue);
    const logged = seconds === 'reset' ? -before.spent : seconds;
    const total = before.spent + logged;
    if (total < 0) throw BadRequestError.invalid('base', 'Time to subtract exceeds the total time spent');
    if (total > 2 ** 31 - 1) throw BadRequestError.invalid('time_spent', 'is too large');
    if (logged !== 0) {
      await insertTimelog(em, { kind: issue.kind, targetId: issue.id, userId: this.ctx.currentUser.id, seconds: logged, now });
      await setTime(em, issue, { spent: total }, now);
      await this.note(issue, timeSpentNote(seconds), now);
    }
    return presentTimeStats(before.estimate, total);
  }

  private note(issue: WorkItemTarget, body: string, now: Date): Promise<number> {
    return insertNote(this.ctx.em, {
      projectId: projectOf(issue).project.id,
      kind: issue.kind,
      targetId: issue.id,
      authorId: this.ctx.currentUser.id,
      body,
      system: true,
      createdAt: now,
    });
  }
}
