import { BadRequestError } from '../../errors.js';
import type { SpentTimeInput, TimeEstimateInput, TimeStats } from '../../schemas/work-items.js';
import { presentTimeStats } from '../present/issues.js';
import { Service } from '../service.js';
import { parseDuration } from './durations.js';
import { issueRow, updateIssue } from './issue-store.js';
import { insertNote, insertTimelog } from './note-store.js';
import type { IssueTarget } from './notes.js';
import { timeEstimateNote, timeSpentNote } from './system-notes.js';

/**
 * Time tracking of issues, in the original's duration language (`3h30m`, `1w 2d`; a day of 8 hours, a week of 5
 * days): an estimate, and time spent logged (negative to take some back, never below none), each change recorded
 * in a system note.
 */
export class TimeTrackingService extends Service {
  /** GET .../time_stats. */
  async stats(issue: IssueTarget): Promise<TimeStats> {
    const row = (await issueRow((await this.ctx.view()).rows, issue.id))!;
    return presentTimeStats(row.time_estimate, row.total_time_spent);
  }

  /** POST .../time_estimate: the estimate set (400 for what is no duration, or a negative one). */
  async setEstimate(issue: IssueTarget, input: TimeEstimateInput): Promise<TimeStats> {
    const seconds = parseDuration(input.duration);
    if (seconds === null) throw BadRequestError.invalid('time_estimate', 'has an invalid format');
    if (seconds < 0) throw BadRequestError.invalid('time_estimate', 'must be greater than or equal to 0');
    return this.estimate(issue, seconds);
  }

  /** POST .../reset_time_estimate. */
  resetEstimate(issue: IssueTarget): Promise<TimeStats> {
    return this.estimate(issue, 0);
  }

  /** POST .../add_spent_time: time logged by the caller; 400 when taking back more than was spent. */
  async addSpent(issue: IssueTarget, input: SpentTimeInput): Promise<TimeStats> {
    const seconds = parseDuration(input.duration);
    if (seconds === null || seconds === 0) throw BadRequestError.invalid('time_spent', 'has an invalid format');
    return this.spend(issue, seconds);
  }

  /** POST .../reset_spent_time: what was spent taken back whole (a log of minus the total). */
  resetSpent(issue: IssueTarget): Promise<TimeStats> {
    return this.spend(issue, 'reset');
  }

  private async estimate(issue: IssueTarget, seconds: number): Promise<TimeStats> {
    const em = this.ctx.em;
    const now = new Date();
    const before = (await issueRow(em, issue.id))!;
    if (before.time_estimate !== seconds) {
      await updateIssue(em, issue.id, { time_estimate: seconds, updated_at: now });
      await this.note(issue, timeEstimateNote(seconds), now);
    }
    return presentTimeStats(seconds, before.total_time_spent);
  }

  private async spend(issue: IssueTarget, seconds: number | 'reset'): Promise<TimeStats> {
    const em = this.ctx.em;
    const now = new Date();
    const before = (await issueRow(em, issue.id))!;
    const logged = seconds === 'reset' ? -before.total_time_spent : seconds;
    const total = before.total_time_spent + logged;
    if (total < 0) throw BadRequestError.invalid('base', 'Time to subtract exceeds the total time spent');
    if (total > 2 ** 31 - 1) throw BadRequestError.invalid('time_spent', 'is too large');
    if (logged !== 0) {
      await insertTimelog(em, { kind: 'Issue', targetId: issue.id, userId: this.ctx.currentUser.id, seconds: logged, now });
      await updateIssue(em, issue.id, { total_time_spent: total, updated_at: now });
      await this.note(issue, timeSpentNote(seconds), now);
    }
    return presentTimeStats(before.time_estimate, total);
  }

  private note(issue: IssueTarget, body: string, now: Date): Promise<number> {
    return insertNote(this.ctx.em, { projectId: issue.project.project.id, kind: 'Issue', targetId: issue.id, authorId: this.ctx.currentUser.id, body, system: true, createdAt: now });
  }
}
