// The SMSGate app's device protocol (/mobile/v1, contract §13): a door onto the devices and
// messages modules, as /v1/device is for the simulator and the Termux agent.
import type { Clock } from '../../lib/clock.ts';
import type { App } from '../../http/types.ts';
import type { DevicesService } from '../devices/service.ts';
import type { EnrollmentsService } from '../devices/enrollments.ts';
import { MOBILE_PATH } from '../devices/enrollments.ts';
import type { DeliveryService } from '../messages/delivery.ts';
import type { InboundService } from '../messages/inbound.ts';
import { SmsEvents } from './events.ts';
import { registerSmsgateRoutes } from './routes.ts';
import { SmsgateService, type SmsgateLog } from './service.ts';

export interface SmsgateModule {
  smsgate: SmsgateService;
  events: SmsEvents;
}

export function build(deps: {
  devices: DevicesService;
  enrollments: EnrollmentsService;
  delivery: DeliveryService;
  inbound: InboundService;
  clock: Clock;
  baseUrl: string;
  log: SmsgateLog;
}): SmsgateModule {
  const smsgate = new SmsgateService({ ...deps, serverUrl: `${deps.baseUrl}${MOBILE_PATH}` });
  return { smsgate, events: new SmsEvents({ delivery: deps.delivery }) };
}

export function register(app: App, module: SmsgateModule): void {
  registerSmsgateRoutes(app, module.smsgate, module.events);
}
