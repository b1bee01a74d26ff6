from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path
from django.views.generic import RedirectView

from afterhack.health import healthz, readyz
from config.api import api
from workspaces.auth import ThrottledLoginView

urlpatterns = [
    path("", RedirectView.as_view(pattern_name="workspaces:list", permanent=False)),
    path("healthz", healthz, name="healthz"),
    path("readyz", readyz, name="readyz"),
    path("accounts/login/", ThrottledLoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("admin/", admin.site.urls),
    path("api/v1/", api.urls),
    path("w/", include("workspaces.urls")),
    path("w/", include("claims.urls")),
    path("w/", include("agents.urls")),
    path("w/", include("webhooks.urls")),
    path("", include("corrections.urls")),
    path("", include("notifications.urls")),
]

admin.site.site_header = "Afterhack administration"
admin.site.site_title = "Afterhack admin"
admin.site.index_title = "Workspaces, people and the audit trail"

# A store that is down is answered 503 naming it, whichever layer hit it; anything else is a 500.
handler500 = "afterhack.outages.server_error"
