import { Email, User } from '../../db/entities/index.js';
import { takenAttribute } from '../../db/unique.js';
import { BadRequestError, NotFoundError } from '../../errors.js';
import type { Email as EmailShape } from '../../schemas/keys.js';
import type { Context } from '../context.js';
import { findPage, type Page, type PageQuery } from '../pagination.js';
import { presentEmail, presentEmails } from '../present/emails.js';
import { checkEmail, Problems } from './user-validation.js';

/** A user's secondary e-mail addresses. */
export class EmailsService {
  constructor(private readonly ctx: Context) {}

  async list(owner: User, input: PageQuery): Promise<Page<EmailShape>> {
    const page = await findPage(this.ctx.em, Email, { user: owner }, { id: 'asc' }, input);
    return { ...page, items: presentEmails(page.items, await this.ctx.view()) };
  }

  async get(owner: User, emailId: number): Promise<EmailShape> {
    return presentEmail(await this.find(owner, emailId), await this.ctx.view());
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

  async delete(owner: User, emailId: number): Promise<void> {
    const email = await this.find(owner, emailId);
    await this.ctx.em.remove(email).flush();
  }

  private async find(owner: User, emailId: number): Promise<Email> {
    const email = await this.ctx.em.findOne(Email, { id: emailId, user: owner });
    if (!email) throw new NotFoundError('Email');
    return email;
  }
}
