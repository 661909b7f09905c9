import { Email, User } from '../../db/entities/index.js';
import { takenAttribute } from '../../db/unique.js';
import { BadRequestError } from '../../errors.js';
import type { Email as EmailShape } from '../../schemas/keys.js';
import { presentEmail, presentEmails } from '../present/emails.js';
import { UserItemsService } from './user-items.js';
import { checkEmail, Problems } from './user-validation.js';

/** A user's secondary e-mail addresses. */
export class EmailsService extends UserItemsService<Email, EmailShape> {
  protected readonly kind = { entity: Email, notFound: 'Email', orderBy: { id: 'asc' }, present: presentEmails } as const;

  protected named(owner: User, id: number) {
    return { id, user: owner };
  }

  async create(owner: User, input: { email: string }): Promise<EmailShape> {
    const address = input.email.trim().toLowerCase();
    const problems = new Problems();
    checkEmail(problems, address);
    if (!problems.any && ((await this.ctx.em.count(Email, { email: address })) || (await this.ctx.em.count(User, { email: address })))) {
      problems.add('email', 'has already been taken');
    }
    if (problems.any) throw new BadRequestError(problems.messages);
    const email = this.ctx.em.create(Email, { user: owner, email: address });
    // Taken by a concurrent call after the check above: the same answer as if it had been first.
    await this.ctx.em.flush().catch((error: unknown) => {
      throw takenAttribute(error) ? BadRequestError.invalid('email', 'has already been taken') : error;
    });
    return presentEmail(email, await this.ctx.view());
  }
}
