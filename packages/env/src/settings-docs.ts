/**
 * Where a README carries its service's settings table: between `<!-- settings -->` and
 * `<!-- /settings -->`. A service's test holds that block to its declaration (settings.ts);
 * `npm run docs:settings` writes it.
 */
const block = /(<!-- settings -->\n)([\s\S]*?)\n?(<!-- \/settings -->)/;

/** The table a README carries, or undefined when it has no settings block. */
export function settingsBlock(readme: string): string | undefined {
  return block.exec(readme)?.[2];
}

/** The README with its settings block replaced by `table`; throws when it has none. */
export function withSettingsBlock(readme: string, table: string): string {
  if (!block.test(readme)) throw new Error("the README has no <!-- settings --> … <!-- /settings --> block");
  return readme.replace(block, (_all, open: string, _old: string, close: string) => `${open}${table}\n${close}`);
}
