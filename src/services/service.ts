import type { EntityManager } from '../db/orm.js';
import type { Context } from './context.js';

/** What every service holds: the call's context, and through it the call's entity manager (its transaction). */
export abstract class Service {
  constructor(protected readonly ctx: Context) {}

  protected get em(): EntityManager {
    return this.ctx.em;
  }
}
