// The SMSGate app's device protocol (/mobile/v1, contract §13): a door onto the devices and
// messages modules, as /v1/device is for the simulator and the Termux agent.
import type { App } from '../../http/types.ts';
import { MOBILE_PATH } from '../devices/enrollments.ts';
import { SmsEvents } from './events.ts';
import { registerSmsgateRoutes } from './routes.ts';
import { SmsgateService, type SmsgateDeps } from './service.ts';

export interface SmsgateModule {
  smsgate: SmsgateService;
  events: SmsEvents;
}

export function build(deps: Omit<SmsgateDeps, 'serverUrl'> & { baseUrl: string }): SmsgateModule {
  const smsgate = new SmsgateService({ ...deps, serverUrl: `${deps.baseUrl}${MOBILE_PATH}` });
  return { smsgate, events: new SmsEvents({ delivery: deps.delivery }) };
}

export function register(app: App, module: SmsgateModule): void {
  registerSmsgateRoutes(app, module.smsgate, module.events);
}
