import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    """Model names unique after normalisation (step 1 of 3): the key column, empty for now;
    the accounts' allowances of model names."""

    dependencies = [
        ('leaderboard', '0012_ranked_family_attempts'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name='modelentry',
            name='name_key',
            field=models.CharField(editable=False, max_length=200, null=True),
        ),
        migrations.CreateModel(
            name='ModelNameAllowance',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('names', models.PositiveIntegerField(help_text="model names this account may own (in place of the site's default cap)")),
                ('note', models.CharField(blank=True, help_text='why (for other staff)', max_length=300)),
                ('updated_at', models.DateTimeField(auto_now=True)),
                ('user', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, related_name='model_name_allowance', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'verbose_name': 'model-name allowance',
            },
        ),
    ]
