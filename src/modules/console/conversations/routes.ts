// The console's cells with their online state, and a conversation view per cell with live updates.
import type { App } from '../../../http/types.ts';
import type { ConsoleModule } from '../module.ts';

export function registerConversationPages(_app: App, _module: ConsoleModule): void {}
