import { forwardOf, type HostingClock, type InstanceClock, instantOf } from '../clock.js';
import { BadRequestError, NotFoundError } from '../errors.js';
import { FaultPlan } from './faults.js';
import { RequestJournal } from './journal.js';
import { SNAPSHOT_NAME, type Snapshot, type Snapshots } from './snapshots.js';

/** The first start's state, kept unlisted (not a name a snapshot may take). */
const FIRST_START = '(first start)';
/** The last seed's state (src/testing/seed.ts), kept unlisted as well. */
const SEEDED = '(seed)';

/** What the instance does around a reset or a restore. */
export interface InstanceUpkeep {
  /** Waits for the background work (the record's consumers, running jobs) and drops what is queued. */
  settle(): Promise<void>;
  /** Runs a statement that rewrites the rows, in a transaction after which the process's caches are forgotten. */
  rewrite(statement: string): Promise<void>;
  /** Forgets what the process kept of the repositories and the hooks, once the rows are back. */
  forget(): Promise<void>;
  /** Makes the first start's rows again (root, the settings). */
  bootstrap(): Promise<void>;
}

/**
 * An instance run as a test double (docs/testing.md): its baseline (the state `reset()` puts back: the first start's,
 * or the last snapshot taken or restored) and its snapshots. Outside the test-double mode every call throws.
 */
export class TestDouble {
  /** The state `reset()` puts back; undefined: the first start's, made again by `bootstrap`. */
  private baseline?: Snapshot;
  private names = 0;
  /** The requests answered (`hosting.requests`; src/testing/journal.ts). */
  readonly journal: RequestJournal;
  /** The faults planned (`hosting.faults`; src/testing/faults.ts). */
  readonly faults: FaultPlan;
  /** The instance's clock as `hosting.clock` shows it: read by anyone, moved by a test double only. */
  readonly clock: HostingClock;

  constructor(
    readonly enabled: boolean,
    private readonly snapshots: Snapshots,
    private readonly instanceClock: InstanceClock,
    private readonly upkeep: InstanceUpkeep,
  ) {
    this.journal = new RequestJournal(enabled, undefined, instanceClock);
    this.faults = new FaultPlan(enabled);
    this.clock = {
      now: () => instanceClock.now(),
      set: (date) => {
        this.check();
        return instanceClock.set(instantOf(date, 'date'));
      },
      advance: (ms) => {
        this.check();
        return instanceClock.advance(forwardOf(ms, 'ms'));
      },
      reset: () => {
        this.check();
        return instanceClock.reset();
      },
    };
  }

  /**
   * Keeps the first start's state (unlisted), so that a reset copies it back rather than making it again, and marks the
   * tables written from then on, so that a reset puts back only those.
   */
  async start(): Promise<void> {
    if (!this.enabled) return;
    await this.snapshots.trackChanges();
    this.baseline = await this.snapshots.take(FIRST_START);
  }

  /**
   * Back to the baseline; `toFirstStart`: to the first start's state, the baseline from then on. The clock goes back to
   * the time the instance started with (a restore leaves it alone).
   */
  async reset({ toFirstStart = false }: { toFirstStart?: boolean } = {}): Promise<void> {
    this.check();
    this.instanceClock.reset();
    if (toFirstStart) this.baseline = this.snapshots.get(FIRST_START);
    await this.putBack(this.baseline);
  }

  async snapshot(name?: string): Promise<string> {
    this.check();
    if (name !== undefined) checkName(name);
    await this.upkeep.settle();
    const named = name ?? `snapshot-${++this.names}`;
    this.baseline = await this.snapshots.take(named);
    return named;
  }

  /** Runs a seed's writes (src/testing/seed.ts); the state they leave becomes the baseline. */
  async seed<T>(write: () => Promise<T>): Promise<T> {
    this.check();
    const made = await write();
    await this.upkeep.settle();
    this.baseline = await this.snapshots.take(SEEDED);
    return made;
  }

  async restore(name: string): Promise<void> {
    this.check();
    const snapshot = name === FIRST_START ? undefined : this.snapshots.get(name);
    if (!snapshot) throw new NotFoundError('Snapshot');
    await this.putBack(snapshot);
    this.baseline = snapshot;
  }

  /** The instance's state now as a snapshot file's bytes (src/testing/snapshots.ts). */
  async save(): Promise<Uint8Array> {
    this.check();
    await this.upkeep.settle();
    return this.snapshots.save();
  }

  /** Puts a snapshot file's state in place, kept as the snapshot `name`: the baseline from then on. */
  async load(bytes: Uint8Array, name = 'loaded'): Promise<string> {
    this.check();
    checkName(name);
    const snapshot = await this.snapshots.load(name, bytes);
    await this.putBack(snapshot);
    this.baseline = snapshot;
    return name;
  }

  /** The snapshots kept, oldest first. */
  list(): { name: string; created_at: string }[] {
    this.check();
    return this.snapshots
      .list()
      .filter(({ name }) => name !== FIRST_START && name !== SEEDED)
      .map(({ name, created_at }) => ({ name, created_at }));
  }

  /** Drops a snapshot; the baseline it was goes back to the first start's. */
  async drop(name: string): Promise<void> {
    this.check();
    if (name === FIRST_START || name === SEEDED || !this.snapshots.get(name)) throw new NotFoundError('Snapshot');
    if (this.baseline?.name === name) this.baseline = this.snapshots.get(FIRST_START);
    await this.snapshots.remove(name);
  }

  private async putBack(snapshot: Snapshot | undefined): Promise<void> {
    // A test's faults and requests are not the next one's (the journal cleared once what was running has ended).
    this.faults.clear();
    await this.upkeep.settle();
    await this.snapshots.putBack(snapshot, (statement) => this.upkeep.rewrite(statement));
    if (!snapshot) await this.upkeep.bootstrap();
    await this.upkeep.forget();
    this.journal.clear();
  }

  private check(): void {
    if (!this.enabled) throw new Error('forgekit: not a test double: start it with testDouble: true (docs/testing.md)');
  }
}

function checkName(name: string): void {
  if (!SNAPSHOT_NAME.test(name)) throw BadRequestError.invalid('name', 'is invalid: letters, digits, `_`, `.` and `-`, 100 at most');
}
