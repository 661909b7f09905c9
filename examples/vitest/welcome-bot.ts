// A user's own tool, as forgekit's users write them: a bot that welcomes the issues opened in a project, with a comment
// and a label, through @gitbeaker/rest. welcome-bot.test.ts tests it against forgekit.
import { GitbeakerRequestError, Gitlab } from '@gitbeaker/rest';

/** The label the bot puts on an issue it has welcomed: it skips those that have it. */
export const WELCOMED = 'welcomed';

export const welcome = (username: string) => `Thanks for the report, @${username}! A maintainer will look at it soon.`;

export interface WelcomeBotOptions {
  /** The service's URL (`/api/v4` is under it). */
  host: string;
  /** The bot's personal access token. */
  token: string;
  projectId: number | string;
}

/** Comments on each opened issue of the project not yet welcomed, and labels it; answers the iids it welcomed. */
export async function welcomeNewIssues({ host, token, projectId }: WelcomeBotOptions): Promise<number[]> {
  const api = new Gitlab({ host, token });
  const welcomed: number[] = [];
  for (const issue of await api.Issues.all({ projectId, state: 'opened' })) {
    if (issue.labels.includes(WELCOMED)) continue;
    await retryOnce(() => api.IssueNotes.create(projectId, issue.iid, welcome(issue.author.username)));
    await retryOnce(() => api.Issues.edit(projectId, issue.iid, { addLabels: WELCOMED }));
    welcomed.push(issue.iid);
  }
  return welcomed;
}

/**
 * Tries a call again once when the service answers 5xx, after the `Retry-After` it sends (a second by default).
 * gitbeaker itself retries 429 and 502 (up to 10 times, a few milliseconds apart): those never reach here.
 */
async function retryOnce<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    const response = error instanceof GitbeakerRequestError ? error.cause?.response : undefined;
    if (!response || response.status < 500) throw error;
    const seconds = Number(response.headers.get('retry-after') ?? 1);
    await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
    return call();
  }
}
