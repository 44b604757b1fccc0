// A user-scoped third-party extension written the way SillyTavern's are,
// for the library import's tests: it is installed, never run.
import { extension_settings } from '../../../extensions.js';
import { saveSettingsDebounced } from '../../../../script.js';

const NAME = 'Echo Notes';

jQuery(() => {
    extension_settings[NAME] ??= { lines: 3 };
    $('#extensions_settings2').append(`<div class="echo-notes">Echo Notes: ${extension_settings[NAME].lines} lines</div>`);
    saveSettingsDebounced();
});
