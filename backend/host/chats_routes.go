package host

import "hearth/backend/chats"

func registerChats(r *Router, svc *chats.Service) {}
