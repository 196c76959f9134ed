import test, { type TestFn } from 'ava';

/**
 * ava's `test`, for test files that a whole run loads several to a process (test groups, scripts/test-plan.mjs):
 * the build points their `import test from 'ava'` here. While a group loads one of its files, every title that file
 * declares is prefixed with the file's name (`api/holds › a hold expires`), so that titles stay unique in the group and
 * a report names the file a test came from. Loaded on its own, a file's titles are its own: this is ava's `test`.
 */
let loading: string | undefined;

/** `fn` (ava's `test` or one of its modifiers) with a string title prefixed while a group loads a file. */
function titled<T extends object>(fn: T): T {
  return new Proxy(fn, {
    apply(target, self, args: unknown[]) {
      const named =
        loading !== undefined && typeof args[0] === 'string' ? [`${loading} › ${args[0]}`, ...args.slice(1)] : args;
      return Reflect.apply(target as (...a: unknown[]) => unknown, self, named);
    },
    get(target, key) {
      const value: unknown = Reflect.get(target, key);
      return typeof value === 'function' ? titled(value) : value;
    },
  });
}

/**
 * Names the test file a group loads next (test/groups/member.js, imported before each file): its titles get the name.
 * ava takes declarations only until the tick its first one was made in ends, so a group loads its files by static
 * imports, in one synchronous evaluation (no test file or helper awaits at its top level).
 */
export function enterGroupMember(name: string): void {
  loading = name;
}

export default titled(test) as TestFn;
