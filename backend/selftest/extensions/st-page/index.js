// The desktop self-test's page extension (backend/selftest, the page tier
// of EXTENSIONS.md §5), written the way SillyTavern third-party extensions
// are: SillyTavern's modules imported by relative path from its folder
// under /scripts/extensions/third-party/, its settings kept in
// extension_settings[its name] and saved with saveSettingsDebounced, a
// settings drawer appended to #extensions_settings once jQuery says the
// page is ready. It counts its starts in its setting (Go reads the count
// back from its storage) and leaves what it saw in window.selftestStPage
// for the self-test's page script (stpage.js): when its module ran and
// when its ready handler had finished (performance.now(), from the
// window's navigation start), and a way to call a name Hearth does not
// back (Generate), which must throw ext.unsupported.
import { Generate, eventSource, event_types, saveSettingsDebounced } from '../../../../script.js';
import { extension_settings, getContext } from '../../../extensions.js';

const extensionName = 'selftest-st-page';

const seen = {
    moduleAt: performance.now(),
    url: import.meta.url,
    readyAt: null,
    appReady: false,
    context: null,
    saved: null,
    tryUnsupported: () => Generate('normal'),
};
window.selftestStPage = seen;

eventSource.on(event_types.APP_READY, () => {
    seen.appReady = true;
});

jQuery(() => {
    const ctx = getContext();
    seen.context = { chat: Array.isArray(ctx.chat), characters: Array.isArray(ctx.characters), settings: ctx.extensionSettings === extension_settings };
    const settings = Object.assign({ runs: 0 }, extension_settings[extensionName]);
    settings.runs += 1;
    extension_settings[extensionName] = settings;
    saveSettingsDebounced();
    seen.saved = { ...settings };
    $('#extensions_settings').append(`
        <div class="selftest-st-page-settings">
            <div class="inline-drawer">
                <div class="inline-drawer-toggle inline-drawer-header">
                    <b>Self-test page extension</b>
                    <div class="inline-drawer-icon fa-solid fa-circle-chevron-down down"></div>
                </div>
                <div class="inline-drawer-content">
                    <span id="selftest_st_page_runs">Started ${settings.runs} time(s)</span>
                </div>
            </div>
        </div>`);
    seen.readyAt = performance.now();
});
