//go:build linux && production && !bindings

// The desktop window's navigation guard (navpolicy.go): Wails v2 leaves
// WebKitGTK's decide-policy signal unhandled, so every navigation would
// be allowed. This connects it to the Go policy, and keeps Wails' IPC
// handler out of the window's frames (hearth_frames_script).

#include <stdint.h>
#include <gtk/gtk.h>
#include <webkit2/webkit2.h>

extern int hearthNavigationVerdict(uintptr_t guard, char *uri, int newWindow, int linkClicked, int userGesture);
extern void hearthNavigationGuardInstalled(uintptr_t guard, int ok);

// How long to look for the webview: the window is built before the GTK
// main loop runs, so the first tries normally find it.
#define HEARTH_GUARD_TRIES 250
#define HEARTH_GUARD_EVERY_MS 20

typedef struct {
	uintptr_t guard;
	int tries;
} hearth_install_state;

static WebKitWebView *hearth_find_webview(GtkWidget *widget) {
	if (WEBKIT_IS_WEB_VIEW(widget)) return WEBKIT_WEB_VIEW(widget);
	if (!GTK_IS_CONTAINER(widget)) return NULL;
	GList *children = gtk_container_get_children(GTK_CONTAINER(widget));
	WebKitWebView *found = NULL;
	for (GList *l = children; l != NULL && found == NULL; l = l->next) found = hearth_find_webview(GTK_WIDGET(l->data));
	g_list_free(children);
	return found;
}

static gboolean hearth_decide_policy(WebKitWebView *view, WebKitPolicyDecision *decision, WebKitPolicyDecisionType type, gpointer data) {
	int new_window;
	switch (type) {
	case WEBKIT_POLICY_DECISION_TYPE_NAVIGATION_ACTION:
		new_window = 0;
		break;
	case WEBKIT_POLICY_DECISION_TYPE_NEW_WINDOW_ACTION:
		new_window = 1;
		break;
	default:
		return FALSE; // responses: WebKit's own handling
	}
	WebKitNavigationAction *action = webkit_navigation_policy_decision_get_navigation_action(WEBKIT_NAVIGATION_POLICY_DECISION(decision));
	const gchar *uri = webkit_uri_request_get_uri(webkit_navigation_action_get_request(action));
	int link = webkit_navigation_action_get_navigation_type(action) == WEBKIT_NAVIGATION_TYPE_LINK_CLICKED ? 1 : 0;
	int gesture = webkit_navigation_action_is_user_gesture(action) ? 1 : 0;
	if (hearthNavigationVerdict((uintptr_t)data, (char *)(uri != NULL ? uri : ""), new_window, link, gesture)) return FALSE;
	webkit_policy_decision_ignore(decision);
	return TRUE;
}

// hearth_frames_script runs at the start of every frame's document: in
// each frame but the window's own it takes window.webkit away before any
// of the frame's scripts run. WebKitGTK exposes Wails' IPC handler
// (window.webkit.messageHandlers.external) to every frame, and Wails
// checks only the window's address, not the sender's: a sandboxed frame
// could otherwise quit the app, open URLs in the system browser or set
// the clipboard through Wails' runtime messages (its bound calls need the
// capability token anyway).
static const char *hearth_frames_script =
	"(function () {"
	"  if (window.top === window) return;"
	"  try { Object.defineProperty(window, 'webkit', { value: undefined, writable: false, configurable: false }); } catch (e) {}"
	"  try { if (window.webkit) Object.defineProperty(window.webkit, 'messageHandlers', { value: undefined, writable: false, configurable: false }); } catch (e) {}"
	"})();";

static void hearth_hide_ipc_from_frames(WebKitWebView *view) {
	WebKitUserContentManager *ucm = webkit_web_view_get_user_content_manager(view);
	if (ucm == NULL) return;
	WebKitUserScript *script = webkit_user_script_new(hearth_frames_script, WEBKIT_USER_CONTENT_INJECT_ALL_FRAMES,
		WEBKIT_USER_SCRIPT_INJECT_AT_DOCUMENT_START, NULL, NULL);
	webkit_user_content_manager_add_script(ucm, script);
	webkit_user_script_unref(script);
}

static gboolean hearth_try_install(gpointer data) {
	hearth_install_state *state = data;
	GList *windows = gtk_window_list_toplevels();
	WebKitWebView *view = NULL;
	for (GList *l = windows; l != NULL && view == NULL; l = l->next) view = hearth_find_webview(GTK_WIDGET(l->data));
	g_list_free(windows);
	if (view == NULL && ++state->tries < HEARTH_GUARD_TRIES) return G_SOURCE_CONTINUE;
	if (view != NULL) {
		g_signal_connect(view, "decide-policy", G_CALLBACK(hearth_decide_policy), (gpointer)state->guard);
		hearth_hide_ipc_from_frames(view);
	}
	hearthNavigationGuardInstalled(state->guard, view != NULL);
	g_free(state);
	return G_SOURCE_REMOVE;
}

// hearth_install_navigation_guard may be called from any thread: the
// search runs on the GTK main loop.
void hearth_install_navigation_guard(uintptr_t guard) {
	hearth_install_state *state = g_new0(hearth_install_state, 1);
	state->guard = guard;
	g_timeout_add(HEARTH_GUARD_EVERY_MS, hearth_try_install, state);
}
