import type { Caller } from './caller.js';

/**
 * Policies as the original service writes its own (DeclarativePolicy): named conditions of a caller and a
 * subject, then rules that enable or prevent abilities when conditions hold. An ability is allowed when some rule
 * enables it and none prevents it: a prevention (an archived project) wins over every enablement, an
 * administrator's included. Each kind of subject has one policy (src/auth/policies/); nothing else decides who may
 * do what.
 */
export interface PolicyDefinition<Subject, Condition extends string, Ability extends string> {
  /** Every ability the policy answers, in the order the policy table lists them. */
  abilities: readonly Ability[];
  /** Each condition of a caller and a subject: computed once per question. */
  conditions: Record<Condition, (caller: Caller, subject: Subject) => boolean>;
  rules: readonly PolicyRule<Condition, Ability>[];
  /**
   * Abilities refused as if the subject did not exist (404 rather than 403), so that its existence does not leak:
   * to everyone, or to those for whom `hides` holds (those who may not see it).
   */
  hidden?: { abilities: readonly Ability[] | 'all'; when?: (is: Readonly<Record<Condition, boolean>>) => boolean };
}

export interface PolicyRule<Condition extends string, Ability extends string> {
  /** Holds for the conditions that hold. */
  when: (is: Readonly<Record<Condition, boolean>>) => boolean;
  enable?: readonly Ability[];
  prevent?: readonly Ability[];
}

export interface Policy<Subject, Ability extends string> {
  readonly abilities: readonly Ability[];
  /** Whether the caller may do `ability` with the subject. */
  allows(caller: Caller, ability: Ability, subject: Subject): boolean;
  /** Every ability the caller has on the subject (the policy table). */
  allowed(caller: Caller, subject: Subject): Ability[];
  /** Whether refusing `ability` answers 404 (the subject hidden), rather than 403. */
  hides(caller: Caller, ability: Ability, subject: Subject): boolean;
  /** Whether refusing `ability` answers 404 to some callers: those who may not see the subject. */
  mayHide(ability: Ability): boolean;
}

export function definePolicy<Subject, Condition extends string, Ability extends string>(
  definition: PolicyDefinition<Subject, Condition, Ability>,
): Policy<Subject, Ability> {
  const names = Object.keys(definition.conditions) as Condition[];
  const conditionsOf = (caller: Caller, subject: Subject) => {
    const is = {} as Record<Condition, boolean>;
    for (const name of names) is[name] = definition.conditions[name](caller, subject);
    return is;
  };
  const decide = (is: Readonly<Record<Condition, boolean>>, ability: Ability) => {
    let enabled = false;
    for (const rule of definition.rules) {
      if (!rule.enable?.includes(ability) && !rule.prevent?.includes(ability)) continue;
      if (!rule.when(is)) continue;
      if (rule.prevent?.includes(ability)) return false;
      if (rule.enable?.includes(ability)) enabled = true;
    }
    return enabled;
  };
  const hidden = definition.hidden;
  return {
    abilities: definition.abilities,
    allows: (caller, ability, subject) => decide(conditionsOf(caller, subject), ability),
    allowed: (caller, subject) => {
      const is = conditionsOf(caller, subject);
      return definition.abilities.filter((ability) => decide(is, ability));
    },
    hides: (caller, ability, subject) => {
      if (!hidden || (hidden.abilities !== 'all' && !hidden.abilities.includes(ability))) return false;
      return hidden.when ? hidden.when(conditionsOf(caller, subject)) : true;
    },
    mayHide: (ability) => hidden !== undefined && (hidden.abilities === 'all' || hidden.abilities.includes(ability)),
  };
}
