// A global third-party extension ("Install for all users") for the library
// import's tests: its settings live under extension_settings['third-party/Clockwork'].
import { eventSource, event_types } from '../../../../script.js';
import { extension_settings } from '../../../extensions.js';

const KEY = 'third-party/Clockwork';

eventSource.on(event_types.MESSAGE_RECEIVED, () => {
    const s = (extension_settings[KEY] ??= { format: '24h' });
    console.debug('Clockwork', s.format, new Date().toISOString());
});
